.include "/etc/passwd"
