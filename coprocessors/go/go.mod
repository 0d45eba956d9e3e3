module proxybench/coprocessor

go 1.22
