roofline --intensity 1 --svg /nonexistent-dir/x.svg
