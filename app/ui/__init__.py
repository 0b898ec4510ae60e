"""BidStudio ui layer."""
