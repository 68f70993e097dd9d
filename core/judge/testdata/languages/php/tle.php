<?php
[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));
$x = 0;
while (true) { $x = ($x * 31 + 7) % 1000003; }
