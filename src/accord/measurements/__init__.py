"""Measurements rather than labels: method comparison (Bland-Altman, concordance correlation)."""
