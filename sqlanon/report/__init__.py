"""What a run tells people and programs: the report as dataclasses (model.py), built in one
place (build.py), written as JSON (``Report.to_json``), Markdown (markdown.py, with its
histogram, histogram_svg.py) and HTML (html.py); its risk section (risk.py), per-attribute
figures (attributes.py) and manifest (manifest.py)."""
