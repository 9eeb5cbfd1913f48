from ocrqueue.cli.app import main

main()
