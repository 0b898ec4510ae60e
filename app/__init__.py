"""BidStudio (标书工坊): write the technical part of a Chinese tender response."""

__version__ = "0.1.0"
APP_NAME = "BidStudio"
APP_NAME_ZH = "标书工坊"
