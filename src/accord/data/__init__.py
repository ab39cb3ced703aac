"""The data model: ratings, contingency tables and the one encoder that turns labels into codes."""
