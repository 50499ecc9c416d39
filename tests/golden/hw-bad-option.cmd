hw list --bogus
