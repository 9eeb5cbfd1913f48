"""Routers of the HTTP API."""
