module concbench/support/bare-idle/go

go 1.26
