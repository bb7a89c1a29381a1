# 2^20 lines of macro expansion: assembly alone would outrun the case's time limit.
.macro m0
nop
.end_macro
.macro m1
m0
m0
.end_macro
.macro m2
m1
m1
.end_macro
.macro m3
m2
m2
.end_macro
.macro m4
m3
m3
.end_macro
.macro m5
m4
m4
.end_macro
.macro m6
m5
m5
.end_macro
.macro m7
m6
m6
.end_macro
.macro m8
m7
m7
.end_macro
.macro m9
m8
m8
.end_macro
.macro m10
m9
m9
.end_macro
.macro m11
m10
m10
.end_macro
.macro m12
m11
m11
.end_macro
.macro m13
m12
m12
.end_macro
.macro m14
m13
m13
.end_macro
.macro m15
m14
m14
.end_macro
.macro m16
m15
m15
.end_macro
.macro m17
m16
m16
.end_macro
.macro m18
m17
m17
.end_macro
.macro m19
m18
m18
.end_macro
.macro m20
m19
m19
.end_macro
main: m20
li $v0, 10
syscall
