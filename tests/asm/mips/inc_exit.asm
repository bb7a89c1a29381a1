	li	$v0, 10
	syscall
