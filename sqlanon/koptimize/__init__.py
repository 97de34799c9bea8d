"""Ordered-interval anonymization (Bayardo & Agrawal 2005): K-Optimize and hill climbing; see docs/koptimize.md."""
