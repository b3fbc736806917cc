/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's mark for bench/insncount.c: one no-op no compiler emits (nopl with the displacement
 * "SLOT"), then exit(0). Static, no libc: nothing else of it runs.
 */
	.globl _start
	.text
_start:
	.byte 0x0f, 0x1f, 0x84, 0x00, 0x53, 0x4c, 0x4f, 0x54
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack,"",@progbits
