; options: strict
; nothing but comments
; file error: file contains only comments
