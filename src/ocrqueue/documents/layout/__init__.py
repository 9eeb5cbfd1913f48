"""Page layout: regions in reading order, ruled tables, and blocks with their types."""
