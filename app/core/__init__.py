"""BidStudio core layer."""
