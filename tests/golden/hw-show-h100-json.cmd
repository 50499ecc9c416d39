hw show h100-sxm --json
