1 clk 0 IT 00000004 3c080001 A svc : lui t0,0x1
2 clk 0 IT (2) zz 3c080001 A svc : x
3 clk MR9 00001000 00
