"""What a run tells people and programs: the report's risk section, the Markdown summary, the
HTML page and its histogram, the manifest, the per-attribute figures."""
