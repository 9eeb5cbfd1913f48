"""Input: sniff and open a file, check its limits, select pages, hand out PDF and image pages with their own text."""
