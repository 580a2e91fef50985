"""The front door: the command line, its sub-commands, the config composer and the sweep launcher."""
