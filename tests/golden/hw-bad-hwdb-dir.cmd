hw show h100-sxm --hwdb /nonexistent/dir
