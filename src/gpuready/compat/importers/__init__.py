"""Importers: pure functions from a vendor's source text to facts (``gpuready data update``).

Each parser takes the text of one primary source (AMD's compatibility matrix, AMD's GPU and OS tables as data,
PyTorch's release build matrix and wheel build scripts, the PyPI JSON API) and returns ``Fact`` records, raising
``ParseError`` when the text is not what it expects. ``update.py`` fetches through one seam, compares the facts with
the installed data set and writes a new one with a diff; nothing here touches the network.
"""
