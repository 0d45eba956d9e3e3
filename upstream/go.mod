module proxybench/upstream

go 1.22
