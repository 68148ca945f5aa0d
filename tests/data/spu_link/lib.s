# Weak definitions, and a weak name nobody defines: 0, and the `a` an SPU_ADD_PIC relocation
# marks is rewritten into `ai rt,ra,0` by ld (elf32-spu.c).
        .text
        .weak   handler
handler:
        il      $3, 1
        bi      $lr
        .weak   hook
hook:   bi      $lr
        .weak   missing
        ila     $9, missing
        .reloc  ., SPU_ADD_PIC, missing
        a       $9, $9, $126
        ila     $10, hook
        .reloc  ., SPU_ADD_PIC, hook
        a       $10, $10, $126
