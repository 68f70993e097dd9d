(* Allocates and touches 100 MiB in 1 MiB blocks, live until the answer is printed. *)
let () =
  Scanf.scanf " %d %d" (fun a b ->
      let blocks = List.init 100 (fun i -> Array.make (1 lsl 17) i) in
      let s = List.fold_left (fun acc bl -> acc + bl.(Array.length bl - 1)) 0 blocks in
      if s <> 4950 then failwith "lost a block";
      Printf.printf "%d\n" (a + b))
