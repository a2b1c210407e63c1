module concbench/contenders/go

go 1.26
