__version__ = "1.1.0"
USER_AGENT = "gw-python/" + __version__
