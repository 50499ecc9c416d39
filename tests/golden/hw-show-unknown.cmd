hw show h100
