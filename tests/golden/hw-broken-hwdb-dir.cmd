hw show h100-sxm --hwdb tests/fixtures/hwdb
