hw show
