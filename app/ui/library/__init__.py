"""The library's UI: the 资料库 dock (list, search, remove, import with progress and cancel) and the 查重 dock.

``attach_library(window)`` adds the menu entries; storage and search are ``app.library`` (Qt-free).
"""
