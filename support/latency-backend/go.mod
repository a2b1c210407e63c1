module concbench/support/latency-backend

go 1.26
