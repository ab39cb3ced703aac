"""Before the study: how many items and raters a reliability study needs."""
