"""BidStudio pipeline layer."""
