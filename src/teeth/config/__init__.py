"""Config: targets and profiles from pyproject.toml or teeth.toml, validated."""
