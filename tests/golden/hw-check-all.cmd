hw check
