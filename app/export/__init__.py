"""BidStudio export layer."""
