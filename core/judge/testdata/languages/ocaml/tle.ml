let () =
  Scanf.scanf " %d %d" (fun a b ->
      let x = ref 0 in
      while !x <> -1 do
        x := (!x * 31 + 7) mod 1000003
      done;
      Printf.printf "%d\n" (a + b + !x))
