eval
