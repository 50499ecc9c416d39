cost rank
