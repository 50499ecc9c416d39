hw list
