module warren

go 1.26.0
