let () = Scanf.scanf " %d %d" (fun a b -> failwith (Printf.sprintf "no answer for %d" (a + b)))
