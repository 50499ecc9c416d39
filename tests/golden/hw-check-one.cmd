hw check hwdb/h100-sxm.yaml
