"""Data files of the table reader (template shapes, default tags and looks).

A package only so that installers ship the ``*.toml`` files with it (``package-data "*" = ["*.toml"]``).
"""
