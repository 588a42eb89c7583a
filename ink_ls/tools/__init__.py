"""Tools: the base contract, the registry and one module per built-in tool.

Tools know nothing of LSP; they reach the editor only through the small
interfaces in `ink_ls.core.tool` (a `FileView` and a `FileWriter`).
"""
