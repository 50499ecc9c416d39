hw frobnicate
