"""The front door: the public entry points that pick an engine and call the estimators."""
