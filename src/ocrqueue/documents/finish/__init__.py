"""The stages both paths end with, on the blocks either one built (finish/page.py)."""
