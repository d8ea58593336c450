"""Judgement: versioned compatibility data and pure rules that turn a Fingerprint into Findings."""
