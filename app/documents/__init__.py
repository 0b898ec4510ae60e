"""BidStudio documents layer."""
