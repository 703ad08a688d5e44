"""teeth's test suites; a package so that `tests.helpers` is this folder's, whatever else is installed as `tests`."""
