.include "/dev/zero"
