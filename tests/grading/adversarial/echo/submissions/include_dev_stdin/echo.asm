.include "/dev/stdin"
