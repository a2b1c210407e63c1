from concbench.cli import main

main()
