"""Reading untrusted files and archives warily."""
